import { Avatar as AvatarPrimitive } from "radix-ui";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { KinPicture } from "@/lib/kin-avatar";
import { tintStyle } from "@/lib/people";
import { cn, initials } from "@/lib/utils";

// Warm pastel backgrounds for the initials of someone known only by name.
const TINTS = ["bg-bubble-user", "bg-bubble-kin", "bg-bubble-task", "bg-bubble-cron", "bg-accent", "bg-secondary"];

function tintOf(name: string): string {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return TINTS[hash % TINTS.length];
}

const SIZES = { sm: "size-7 text-[0.65rem]", md: "size-9 text-xs", lg: "size-12 text-sm", xl: "size-20 text-xl" } as const;

/** What a Kin's generated picture is made from (its name is the avatar's `name`). */
export interface KinLook {
  role?: string | null;
  expertise?: string | null;
}

export interface AvatarProps {
  name: string;
  src?: string | null;
  size?: keyof typeof SIZES;
  className?: string;
  /** A small status dot at the corner. */
  status?: "thinking" | "error" | null;
  /** Set for a Kin: without a picture it gets one drawn from its name and role. */
  kin?: KinLook | null;
  /** Set for a person: their initials take the tint of their bubbles. */
  personId?: string | null;
  /** Whether a Kin's generated picture names it to assistive technology (not where the name
   * is written right beside it). Photos are always decorative: a name goes with them. */
  labelled?: boolean;
}

/** A round picture of a user or a Kin: their photo; else a Kin's generated picture, or a
 * person's initials. */
export function Avatar({ name, src, size = "md", className, status, kin, personId, labelled = true }: AvatarProps) {
  const { t } = useTranslation();
  return (
    <span className={cn("relative inline-flex shrink-0", className)} data-avatar={kin ? "kin" : "person"}>
      <AvatarPrimitive.Root className={cn("inline-flex shrink-0 items-center justify-center overflow-hidden rounded-full ring-2 ring-card", SIZES[size])}>
        {src ? <AvatarPrimitive.Image src={src} alt="" className="size-full object-cover" /> : null}
        {kin ? (
          <AvatarPrimitive.Fallback delayMs={src ? 400 : undefined} asChild>
            <KinPicture name={name} role={kin.role} expertise={kin.expertise} label={labelled ? t("people.kinPicture", { name }) : null} className="size-full" />
          </AvatarPrimitive.Fallback>
        ) : (
          <AvatarPrimitive.Fallback
            delayMs={src ? 400 : undefined}
            className={cn("flex size-full items-center justify-center font-bold", !personId && cn("text-foreground/75", tintOf(name)))}
            style={personId ? tintStyle(personId) : undefined}
            aria-hidden
          >
            {initials(name)}
          </AvatarPrimitive.Fallback>
        )}
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
