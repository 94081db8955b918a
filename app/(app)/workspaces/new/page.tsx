import { NoWorkspace } from "@/components/shell/no-workspace";

export const metadata = { title: "No workspace" };

export default function NewWorkspacePage() {
  return <NoWorkspace />;
}
