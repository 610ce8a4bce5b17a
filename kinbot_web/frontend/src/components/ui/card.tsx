import * as React from "react";

import { cn } from "@/lib/utils";

type DivProps = React.ComponentProps<"div">;

/** A soft, rounded surface. */
export function Card({ className, ...props }: DivProps) {
  return <div className={cn("rounded-2xl border border-border/70 bg-card text-card-foreground shadow-soft", className)} {...props} />;
}
export function CardHeader({ className, ...props }: DivProps) {
  return <div className={cn("flex flex-col gap-1.5 p-6 pb-3", className)} {...props} />;
}
/** The card's heading: a second-level one, or `level={1}` when the card is the page (sign-in, onboarding). */
export function CardTitle({ className, level = 2, ...props }: React.ComponentProps<"h2"> & { level?: 1 | 2 | 3 }) {
  const Heading = `h${level}` as const;
  return <Heading className={cn("text-lg font-bold tracking-tight", className)} {...props} />;
}
export function CardDescription({ className, ...props }: React.HTMLAttributes<HTMLParagraphElement>) {
  return <p className={cn("text-sm text-muted-foreground", className)} {...props} />;
}
export function CardContent({ className, ...props }: DivProps) {
  return <div className={cn("p-6 pt-3", className)} {...props} />;
}
export function CardFooter({ className, ...props }: DivProps) {
  return <div className={cn("flex items-center gap-2 p-6 pt-0", className)} {...props} />;
}
