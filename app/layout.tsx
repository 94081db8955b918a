import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Toaster } from "sonner";
import { TRPCReactProvider } from "@/components/providers/trpc-provider";
import "@xyflow/react/dist/style.css";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Conveyor", template: "%s · Conveyor" },
  description: "Workflow automation for alert-to-ticket work",
  icons: { icon: "/favicon.svg" },
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <TRPCReactProvider>{children}</TRPCReactProvider>
        <Toaster position="bottom-right" richColors closeButton />
      </body>
    </html>
  );
}
