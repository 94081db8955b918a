export {
  createConnection,
  updateConnection,
  deleteConnection,
  listConnections,
  getConnectionOrThrow,
  verifyConnection,
  listResources,
  toConnectionView,
  type ConnectionView,
} from "./connections";
export { OAuthCallbackError, beginOAuth, completeOAuth, chooseSite, oauthCallbackUrl } from "./oauth-flow";
export { loadConnectionHandle } from "./load-connection";
export { createOAuthTokenSource } from "./oauth-token-source";
