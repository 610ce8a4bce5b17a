/** A bar chart of amounts (cost by day, by Kin), drawn by uPlot on a canvas. uPlot is loaded
 * with the first chart shown, never with the first page. */

import * as React from "react";
import type uPlot from "uplot";

import { amountAxisMax } from "@/lib/money-axis";

interface UsageBarsProps {
  /** What the chart shows, for its accessible name ("Cost by day"). */
  title: string;
  labels: string[];
  values: number[];
  /** How an amount reads (the accessible summary; the axis's ticks without `ticks`). */
  format: (value: number) => string;
  /** How the axis's ticks read, all together (enough decimals to tell them apart). */
  ticks?: (values: number[]) => string[];
  /** The least top of the axis: a spend below it draws a bar as short as it is small. */
  floor?: number;
  height?: number;
}

/** Every n-th label, so that labels do not overlap at the chart's width. */
function labelStep(count: number, width: number): number {
  return Math.max(1, Math.ceil(count / Math.max(1, Math.floor(width / 56))));
}

/** Bars of `values` over `labels`; the accessible name sums the data up in words. */
export function UsageBars({ title, labels, values, format, ticks, floor = 0, height = 220 }: UsageBarsProps) {
  const box = React.useRef<HTMLDivElement>(null);
  const [failed, setFailed] = React.useState(false);

  React.useEffect(() => {
    const element = box.current;
    if (!element) return;
    let chart: uPlot | null = null;
    let observer: ResizeObserver | null = null;
    let cancelled = false;
    void Promise.all([import("uplot"), import("uplot/dist/uPlot.min.css")])
      .then(([{ default: UPlot }]) => {
        if (cancelled) return;
        const style = getComputedStyle(element);
        const bar = style.getPropertyValue("--usage-bar").trim() || style.color;
        const text = style.getPropertyValue("--usage-text").trim() || style.color;
        const xs = labels.map((_, index) => index);
        const width = Math.max(200, element.clientWidth);
        const options: uPlot.Options = {
          width,
          height,
          legend: { show: false },
          cursor: { show: false },
          scales: { x: { time: false, range: () => [-0.5, Math.max(0.5, labels.length - 0.5)] }, y: { range: (_u, _min, max) => [0, amountAxisMax(max, floor) || 1] } },
          series: [{}, { label: title, fill: bar, stroke: bar, width: 0, paths: UPlot.paths.bars?.({ size: [0.7, 48] }), points: { show: false } }],
          axes: [
            {
              stroke: text,
              grid: { show: false },
              ticks: { show: false },
              splits: (u) => xs.filter((index) => index % labelStep(labels.length, u.width) === 0),
              values: (_u, splits) => splits.map((index) => labels[index] ?? ""),
            },
            {
              stroke: text,
              // Wide enough for the longest amount ("0,005 $US") at the axis font's size.
              size: (_u, values) => 16 + 7 * Math.max(4, ...(values ?? []).map((value) => value.length)),
              grid: { stroke: "rgba(128,128,128,0.15)" },
              values: (_u, splits) => (ticks ? ticks(splits) : splits.map(format)),
            },
          ],
        };
        chart = new UPlot(options, [xs, values], element);
        observer = new ResizeObserver(() => chart?.setSize({ width: Math.max(200, element.clientWidth), height }));
        observer.observe(element);
      })
      .catch(() => setFailed(true));
    return () => {
      cancelled = true;
      observer?.disconnect();
      chart?.destroy();
    };
  }, [title, labels, values, format, ticks, floor, height]);

  const summary = labels.map((label, index) => `${label} ${format(values[index] ?? 0)}`).join(", ");
  return (
    <figure className="flex flex-col gap-2">
      <figcaption className="text-sm font-semibold">{title}</figcaption>
      <div
        ref={box}
        role="img"
        aria-label={`${title}: ${summary}`}
        data-usage-chart={labels.length}
        className="min-h-[220px] w-full overflow-hidden text-primary [--usage-text:var(--color-muted-foreground)]"
        style={{ minHeight: height }}
      />
      {failed ? <p className="text-xs text-muted-foreground">{summary}</p> : null}
    </figure>
  );
}
