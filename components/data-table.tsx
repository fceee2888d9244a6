"use client";
// A table that never scrolls sideways: while its card is wide enough for it (at least `minWidth`, and as wide as the
// table's content needs) it is an ordinary table; narrower (a phone, a small window), every row becomes a card of
// "column: value" lines with its actions, all on screen.
// The lines are labelled from the table's own headers, so a page writes one table and gets both forms.
import { Table, type TableProps } from "@mantine/core";
import { useLayoutEffect, useRef, useState, type ReactNode } from "react";

export function DataTable({ minWidth, children, ...props }: TableProps & { minWidth: number; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [stacked, setStacked] = useState(false);
  // The width the table needs: `minWidth`, or more when its content was seen overflowing a card that wide.
  const needed = useRef(minWidth);

  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    needed.current = minWidth;
    const measure = () => {
      const table = element.querySelector("table");
      if (!element.hasAttribute("data-stacked") && table && table.scrollWidth > element.clientWidth + 1)
        needed.current = Math.max(needed.current, table.scrollWidth);
      setStacked(element.clientWidth < needed.current);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [minWidth]);

  // New rows can make the table wider than its card: check again after each render while it is a table.
  useLayoutEffect(() => {
    const element = box.current;
    const table = element?.querySelector("table");
    if (!element || !table || stacked) return;
    if (table.scrollWidth > element.clientWidth + 1) {
      needed.current = Math.max(needed.current, table.scrollWidth);
      setStacked(true);
    }
  });

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
