/** Integration icons: a small fixed map of lucide icons (importing lucide's whole icon table would bloat the canvas bundle). */
import {
  Activity,
  ArchiveRestore,
  Bell,
  Blocks,
  BookmarkPlus,
  Clock,
  Filter,
  Globe,
  Hand,
  Hourglass,
  LifeBuoy,
  Play,
  Ticket,
  Webhook,
  type LucideIcon,
} from "lucide-react";

const BY_NAME: Record<string, LucideIcon> = {
  activity: Activity,
  bell: Bell,
  blocks: Blocks,
  clock: Clock,
  filter: Filter,
  globe: Globe,
  hand: Hand,
  hourglass: Hourglass,
  "life-buoy": LifeBuoy,
  play: Play,
  ticket: Ticket,
  webhook: Webhook,
};
const BY_KEY: Record<string, LucideIcon> = {
  "core.manual": Hand,
  "core.schedule": Clock,
  "core.webhook": Webhook,
  "core.http": Globe,
  "core.filter": Filter,
  "core.wait": Hourglass,
  "core.remember": BookmarkPlus,
  "core.recall": ArchiveRestore,
};
const COLORS: Record<string, string> = { metrics: "bg-orange-50 text-orange-600", tracker: "bg-blue-50 text-blue-600", core: "bg-zinc-100 text-zinc-700" };

export function IntegrationIcon({ integration, icon, unitKey, size = 16 }: { integration: string; icon?: string; unitKey?: string; size?: number }) {
  const Icon = (unitKey && BY_KEY[unitKey]) || (icon && BY_NAME[icon]) || (integration === "metrics" ? Activity : integration === "tracker" ? Ticket : Blocks);
  return (
    <span
      className={`inline-flex shrink-0 items-center justify-center rounded-md ${COLORS[integration] ?? "bg-violet-50 text-violet-600"}`}
      style={{ width: size + 12, height: size + 12 }}
      aria-hidden
    >
      <Icon size={size} />
    </span>
  );
}
