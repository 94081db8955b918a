"use client";
/** A workspace page threw: the message shows inside the workspace's shell (its navigation stays usable). */
import { PageError, type PageErrorProps } from "@/components/errors/page-error";

export default function WorkspacePageError(props: PageErrorProps) {
  return <PageError {...props} />;
}
