export declare const STORE_COMMANDS: string[];
export declare function controlDir(dataDir: string): string;
export declare function controlSocketPath(dataDir: string): string;
export declare function socketPathFits(socketPath: string): boolean;
