import { cva, type VariantProps } from "class-variance-authority";
import * as React from "react";

import { cn } from "@/lib/utils";

const badgeVariants = cva("inline-flex items-center gap-1 rounded-full px-2.5 py-0.5 text-xs font-semibold [&_svg]:size-3", {
  variants: {
    variant: {
      default: "bg-primary text-primary-foreground",
      secondary: "bg-secondary text-secondary-foreground",
      outline: "border border-border text-muted-foreground",
      success: "bg-success/15 text-success",
      warning: "bg-warning/20 text-foreground",
      destructive: "bg-destructive/15 text-destructive",
      kin: "bg-bubble-kin text-bubble-kin-accent",
      task: "bg-bubble-task text-bubble-task-accent",
      cron: "bg-bubble-cron text-bubble-cron-accent",
    },
  },
  defaultVariants: { variant: "default" },
});

export interface BadgeProps extends React.HTMLAttributes<HTMLSpanElement>, VariantProps<typeof badgeVariants> {}

/** A small rounded label (counts, states, markers). */
export function Badge({ className, variant, ...props }: BadgeProps) {
  return <span className={cn(badgeVariants({ variant }), className)} {...props} />;
}
