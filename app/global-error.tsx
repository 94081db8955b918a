"use client";
/**
 * The root layout itself threw (error.tsx cannot help there: it renders inside that layout), so this
 * replaces the whole document and brings its own <html>, <body> and styles.
 */
import { PageError, type PageErrorProps } from "@/components/errors/page-error";
import "./globals.css";

export default function GlobalError(props: PageErrorProps) {
  return (
    <html lang="en">
      <head>
        <title>Conveyor</title>
      </head>
      <body className="flex min-h-screen">
        <PageError {...props} />
      </body>
    </html>
  );
}
