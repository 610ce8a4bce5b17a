import { configure } from "@testing-library/dom";

// `findBy…` and `waitFor` wait for a state; how long they may wait is a guard against a hung
// test, not a speed check, and CI runs Vitest beside pytest on two busy cores.
configure({ asyncUtilTimeout: 30_000 });
