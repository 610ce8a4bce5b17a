import { Avatar as AvatarPrimitive } from "radix-ui";
import * as React from "react";

import { cn, initials } from "@/lib/utils";

// Warm pastel backgrounds for fallbacks: a name always gets the same one.
const TINTS = ["bg-bubble-user", "bg-bubble-kin", "bg-bubble-task", "bg-bubble-cron", "bg-accent", "bg-secondary"];

function tintOf(name: string): string {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return TINTS[hash % TINTS.length];
}

const SIZES = { sm: "size-7 text-[0.65rem]", md: "size-9 text-xs", lg: "size-12 text-sm", xl: "size-20 text-xl" } as const;

export interface AvatarProps {
  name: string;
  src?: string | null;
  size?: keyof typeof SIZES;
  className?: string;
  /** A small status dot at the corner. */
  status?: "thinking" | "error" | null;
}

/** A round picture of a user or a Kin, with the initials while (or when) there is none. */
export function Avatar({ name, src, size = "md", className, status }: AvatarProps) {
  return (
    <span className={cn("relative inline-flex shrink-0", className)}>
      <AvatarPrimitive.Root className={cn("inline-flex shrink-0 items-center justify-center overflow-hidden rounded-full ring-2 ring-card", SIZES[size])}>
        {src ? <AvatarPrimitive.Image src={src} alt="" className="size-full object-cover" /> : null}
        <AvatarPrimitive.Fallback delayMs={src ? 400 : 0} className={cn("flex size-full items-center justify-center font-bold text-foreground/75", tintOf(name))} aria-hidden>
          {initials(name)}
        </AvatarPrimitive.Fallback>
      </AvatarPrimitive.Root>
      {status ? (
        <span
          className={cn(
            "absolute -right-0.5 -bottom-0.5 size-3 rounded-full ring-2 ring-card",
            status === "thinking" ? "animate-pulse bg-success" : "bg-destructive",
          )}
          aria-hidden
        />
      ) : null}
    </span>
  );
}

export const AvatarGroup = ({ children }: { children: React.ReactNode }) => <div className="flex -space-x-2">{children}</div>;
