/** Module-scope node type map (React Flow re-renders everything when this object changes identity). */
import type { NodeTypes } from "@xyflow/react";
import { NoteNode } from "./nodes/note-node";
import { UnitNode } from "./nodes/unit-node";

export const nodeTypes: NodeTypes = { trigger: UnitNode, component: UnitNode, note: NoteNode } as NodeTypes;
