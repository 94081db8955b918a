/** Child process: loads the stub OAuth connection and prints the access token it gets (cross-process refresh test). */
import { registerStubOAuth } from "./stub-oauth";
import { refreshInChild } from "./refresh-in-child";

registerStubOAuth();
refreshInChild();
