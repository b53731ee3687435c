export declare function nearest(typed: string, known: readonly string[]): string | null;
