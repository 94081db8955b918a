"use client";
/** The catalog (served by `catalog.list`) indexed by key, shared by palette, nodes and the config panel. */
import { createContext, useContext, useMemo, type ReactNode } from "react";
import type { CatalogIntegration, PaletteUnit } from "./types";

export interface CatalogIndex {
  integrations: CatalogIntegration[];
  units: PaletteUnit[];
  byKey: Map<string, PaletteUnit>;
  kindOf: (key: string) => "trigger" | "component";
}

export function indexCatalog(integrations: CatalogIntegration[]): CatalogIndex {
  const units: PaletteUnit[] = integrations.flatMap((i) => [...i.triggers, ...i.components].map((u) => ({ ...u, integration: i })));
  const byKey = new Map(units.map((u) => [u.key, u]));
  return { integrations, units, byKey, kindOf: (key) => byKey.get(key)?.kind ?? (/\.on[A-Z]/.test(key) ? "trigger" : "component") };
}

const Ctx = createContext<CatalogIndex>(indexCatalog([]));

export function CatalogProvider({ integrations, children }: { integrations: CatalogIntegration[]; children: ReactNode }) {
  const value = useMemo(() => indexCatalog(integrations), [integrations]);
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export const useCatalog = () => useContext(Ctx);
