"use client";
import { Toaster } from "sonner";
import { useTheme } from "./theme";

/** Sonner's toaster in the page's theme (it cannot see our `dark` class by itself). */
export function ThemedToaster() {
  const { resolved } = useTheme();
  return <Toaster position="bottom-right" richColors closeButton theme={resolved} />;
}
