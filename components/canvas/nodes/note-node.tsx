"use client";
/** Sticky note: free text on the canvas, resizable, edited in place. */
import { NodeResizer, type NodeProps } from "@xyflow/react";
import { memo, useState } from "react";
import { useCanvasStore } from "../canvas-store";
import type { FlowNode, NoteData } from "../types";

function NoteNodeView({ id, data, selected }: NodeProps<FlowNode> & { data: NoteData }) {
  const updateNote = useCanvasStore((s) => s.updateNote);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(data.text);
  return (
    <div
      className="h-full w-full rounded-md border border-amber-200 bg-amber-50 p-2 text-xs text-amber-950 shadow-sm"
      data-node-key="note"
      onDoubleClick={() => setEditing(true)}
    >
      <NodeResizer isVisible={selected} minWidth={140} minHeight={60} />
      {editing ? (
        <textarea
          autoFocus
          aria-label="Note text"
          className="nodrag h-full w-full resize-none bg-transparent outline-none"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onBlur={() => {
            setEditing(false);
            if (text !== data.text) updateNote(id, text);
          }}
        />
      ) : (
        <p className="whitespace-pre-wrap">{data.text || <span className="italic text-amber-700/60">Double-click to write a note</span>}</p>
      )}
    </div>
  );
}

export const NoteNode = memo(NoteNodeView);
