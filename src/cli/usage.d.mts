export declare const COMMAND_HELP: Record<string, string>;
export declare const USAGE: string;
export declare function version(): string;
export declare function answerWithoutLoading(
  argv: string[],
): { code: number; stdout?: string; stderr?: string } | null;
