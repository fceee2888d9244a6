"use client";
// A table that never scrolls sideways: while its card is at least `minWidth` wide it is an ordinary table; narrower
// (a phone, a small window), every row becomes a card of "column: value" lines with its actions, all on screen.
// The lines are labelled from the table's own headers, so a page writes one table and gets both forms.
import { Table, type TableProps } from "@mantine/core";
import { useLayoutEffect, useRef, useState, type ReactNode } from "react";

export function DataTable({ minWidth, children, ...props }: TableProps & { minWidth: number; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [stacked, setStacked] = useState(false);

  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => setStacked(element.clientWidth < minWidth);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [minWidth]);

  // Every render: rows come and go with pages and filters.
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const headers = Array.from(element.querySelectorAll("thead th"), (cell) => cell.textContent?.trim() ?? "");
    for (const row of element.querySelectorAll("tbody tr")) {
      Array.from(row.children).forEach((cell, index) => {
        const label = headers[index];
        if (label) cell.setAttribute("data-label", label);
        else cell.removeAttribute("data-label");
      });
    }
  });

  return (
    <div ref={box} className="data-table" data-stacked={stacked || undefined}>
      <Table {...props}>{children}</Table>
    </div>
  );
}
