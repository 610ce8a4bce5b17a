/** Who may do what only a Kin's owners do (delete it, let its scripts reach the internet):
 * an administrator, or the person who created it. The server checks the same. */

import type { Kin, User } from "./types";

/** Whether `user` (null while it loads) is an administrator or created `kin`. */
export function ownsKin(user: Pick<User, "id" | "role"> | null, kin: Pick<Kin, "created_by">): boolean {
  if (user === null) return false;
  return user.role === "admin" || (kin.created_by !== null && user.id === kin.created_by);
}
