import { ChevronDownIcon } from "lucide-react";
import * as React from "react";

import { cn } from "@/lib/utils";

import { fieldClasses } from "./input";

/** The browser's own select, dressed like the other fields (accessible and phone-friendly). */
export const NativeSelect = React.forwardRef<HTMLSelectElement, React.SelectHTMLAttributes<HTMLSelectElement>>(({ className, children, ...props }, ref) => (
  <span className="relative block">
    <select ref={ref} className={cn(fieldClasses, "h-10 appearance-none py-2 pr-9", className)} {...props}>
      {children}
    </select>
    <ChevronDownIcon className="pointer-events-none absolute top-1/2 right-3 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden />
  </span>
));
NativeSelect.displayName = "NativeSelect";
