"use client";
/** A page or layout below the root layout threw: a styled message in the app's own layout (components/errors/page-error.tsx). */
import { PageError, type PageErrorProps } from "@/components/errors/page-error";

export default function ErrorPage(props: PageErrorProps) {
  return <PageError {...props} />;
}
