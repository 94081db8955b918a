import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "@/components/providers/trpc-provider";
import { THEME_SCRIPT } from "@/components/theme/theme-script";
import { ThemedToaster } from "@/components/theme/themed-toaster";
import "@xyflow/react/dist/style.css";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Conveyor", template: "%s · Conveyor" },
  description: "Workflow automation for alert-to-ticket work",
  icons: { icon: "/favicon.svg" },
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#141417" },
  ],
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The theme script sets class/style on <html> before React hydrates.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body>
        <TRPCReactProvider>{children}</TRPCReactProvider>
        <ThemedToaster />
      </body>
    </html>
  );
}
