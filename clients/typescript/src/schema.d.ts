/**
 * Generated from consent-service's /v1/openapi.json by `npm run client:generate`; do not edit.
 * A test fails when this file no longer matches the service's routes.
 */
export interface paths {
    "/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List API keys (never their secrets) */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-0"][];
                            meta: {
                                nextCursor: string | null;
                            };
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Issue an API key for the calling key’s member; the secret is in this response only */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
                        scopes: string[];
                        expiresAt?: string | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @example key_4kF9x2mQ7pL1vN8sR3tY6w */
                                id: string;
                                name: string;
                                environment: "test" | "live";
                                scopes: string[];
                                status: "active" | "expired" | "revoked";
                                /** @description First 12 characters of the secret, for telling keys apart */
                                prefix: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T10:00:00Z
                                 */
                                createdAt: string;
                                expiresAt: string | null;
                                lastUsedAt: string | null;
                                revokedAt: string | null;
                                memberId: string;
                                /** @description Shown once, in this response only */
                                secret: string;
                            };
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One API key (never its secret) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-0"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Issue a replacement key with the same scopes; the old one works for graceSeconds more */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @default 86400 */
                        graceSeconds?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @example key_4kF9x2mQ7pL1vN8sR3tY6w */
                                id: string;
                                name: string;
                                environment: "test" | "live";
                                scopes: string[];
                                status: "active" | "expired" | "revoked";
                                /** @description First 12 characters of the secret, for telling keys apart */
                                prefix: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T10:00:00Z
                                 */
                                createdAt: string;
                                expiresAt: string | null;
                                lastUsedAt: string | null;
                                revokedAt: string | null;
                                memberId: string;
                                /** @description Shown once, in this response only */
                                secret: string;
                            };
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke a key: it is rejected from now on */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-0"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit-logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Audit log of the organization and environment (no payloads, secrets or subject data) */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                    action?: string;
                    actorId?: string;
                    targetId?: string;
                    from?: string;
                    to?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-1"][];
                            meta: {
                                nextCursor: string | null;
                            };
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List channels, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-2"][];
                            meta: {
                                nextCursor: string | null;
                            };
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Create a channel (configVersion 1) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
                        description?: string | null;
                        /**
                         * @example en
                         * @example pt-BR
                         */
                        defaultLanguage?: string;
                        privacyPolicy?: {
                            url?: string | null;
                            version?: string;
                            retentionDays?: number;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-2"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One channel */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-2"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Update a channel; a new defaultLanguage or policy url/version publishes a new configVersion */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name?: string;
                        description?: string | null;
                        /**
                         * @example en
                         * @example pt-BR
                         */
                        defaultLanguage?: string;
                        privacyPolicy?: {
                            url?: string | null;
                            version?: string;
                            retentionDays?: number;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-2"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/channels/{id}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Archive a channel: it answers no public calls from now on */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-2"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{id}/purposes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a channel’s purposes, archived ones included, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-3"][];
                            meta: {
                                nextCursor: string | null;
                            };
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Add a purpose; publishes a new configVersion */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @example analytics */
                        key: string;
                        name: string;
                        description?: string | null;
                        legalBasis?: "consent" | "legitimate_interest";
                        required?: boolean;
                        /** @description Texts by language tag, for example {"fr": {"name": "Mesure d’audience"}} */
                        translations?: {
                            [key: string]: {
                                name: string;
                                description?: string | null;
                            };
                        };
                        /** @description Google Consent Mode v2 signals granted with this purpose */
                        consentModeSignals?: ("ad_storage" | "ad_user_data" | "ad_personalization" | "analytics_storage" | "functionality_storage" | "personalization_storage" | "security_storage")[];
                        gpcOptOut?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-3"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{id}/purposes/{purposeId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One purpose */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    purposeId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-3"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Update a purpose (not its key); publishes a new configVersion when visitors would see a change */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    purposeId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name?: string;
                        description?: string | null;
                        legalBasis?: "consent" | "legitimate_interest";
                        required?: boolean;
                        /** @description Texts by language tag, for example {"fr": {"name": "Mesure d’audience"}} */
                        translations?: {
                            [key: string]: {
                                name: string;
                                description?: string | null;
                            };
                        };
                        /** @description Google Consent Mode v2 signals granted with this purpose */
                        consentModeSignals?: ("ad_storage" | "ad_user_data" | "ad_personalization" | "analytics_storage" | "functionality_storage" | "personalization_storage" | "security_storage")[];
                        gpcOptOut?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-3"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/channels/{id}/purposes/{purposeId}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Archive a purpose: it leaves the banner and its technologies; publishes a new configVersion */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    purposeId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-3"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{id}/technologies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a channel’s technologies (scripts, cookies), newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-4"][];
                            meta: {
                                nextCursor: string | null;
                            };
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Add a technology; its purposeKeys must name active purposes. Publishes a new configVersion */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
                        vendor?: string | null;
                        purposeKeys?: string[];
                        cookies?: {
                            name: string;
                            domain?: string | null;
                            /** @description null for a session cookie */
                            maxAgeSeconds?: number | null;
                        }[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-4"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{id}/technologies/{technologyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One technology */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    technologyId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-4"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a technology; publishes a new configVersion */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    technologyId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Update a technology; publishes a new configVersion when visitors would see a change */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    technologyId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name?: string;
                        vendor?: string | null;
                        purposeKeys?: string[];
                        cookies?: {
                            name: string;
                            domain?: string | null;
                            /** @description null for a session cookie */
                            maxAgeSeconds?: number | null;
                        }[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-4"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/channels/{id}/origins": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the origins allowed to post preferences for the channel, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-5"][];
                            meta: {
                                nextCursor: string | null;
                            };
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Allow an origin (normalized; one leading wildcard label allowed) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        origin: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-5"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{id}/origins/{originId}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop allowing an origin */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    originId: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-5"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{id}/config-versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a channel’s config versions, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-6"][];
                            meta: {
                                nextCursor: string | null;
                            };
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/channels/{id}/config-versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One config version: exactly what visitors were shown */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    version: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-6"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/sites/{siteKey}/snippet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The HTML that loads the SDK for this site */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @example site_live_4kF9x2mQ7pL1vN8sR3tY6wQa */
                    siteKey: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @description Paste into every page, before other tags that need consent */
                                html: string;
                            };
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/sites/{siteKey}/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What the banner shows: the current configVersion's snapshot (ETag, cacheable) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @example site_live_4kF9x2mQ7pL1vN8sR3tY6wQa */
                    siteKey: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-7"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/sites/{siteKey}/sdk.js": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The browser SDK (application/javascript) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @example site_live_4kF9x2mQ7pL1vN8sR3tY6wQa */
                    siteKey: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/sites/{siteKey}/preferences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Record a visitor's consent decision as evidence */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @example site_live_4kF9x2mQ7pL1vN8sR3tY6wQa */
                    siteKey: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The visitor's opaque id kept by the SDK; only its keyed pseudonym is stored */
                        subjectId: string;
                        /** @description Purpose key → decision. Required purposes left out are granted; others left out are denied. */
                        decisions: {
                            [key: string]: "granted" | "denied";
                        };
                        /** @description The config version the visitor was shown */
                        configVersion: number;
                        source?: "banner" | "preference_center" | "api" | "gpc";
                        language?: string;
                        /** @description Global Privacy Control was on: gpcOptOut purposes are recorded as denied */
                        gpc?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @example evt_4kF9x2mQ7pL1vN8sR3tY6w */
                                id: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T10:00:00Z
                                 */
                                recordedAt: string;
                                receipt: {
                                    hash: string;
                                };
                            };
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        /** CORS preflight: 204 with CORS headers for registered origins only, else 403 */
        options: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @example site_live_4kF9x2mQ7pL1vN8sR3tY6wQa */
                    siteKey: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/evidence": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Consent evidence of the organization and environment, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                    channelId?: string;
                    /** @description RFC 3339; recordedAt at or after */
                    from?: string;
                    /** @description RFC 3339; recordedAt at or before */
                    to?: string;
                    /** @description Events that decided this purpose */
                    purpose?: string;
                    decision?: "granted" | "denied";
                    source?: "banner" | "preference_center" | "api" | "gpc";
                    /** @description The visitor's raw id; pseudonymized server-side, never stored */
                    subjectId?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-8"][];
                            meta: {
                                nextCursor: string | null;
                            };
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/evidence/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One evidence event */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-8"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/ledger-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Public keys that sign tree heads, old ones included */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                keyId: string;
                                /** @enum {string} */
                                algorithm: "Ed25519";
                                /** @description Base64 of the raw 32-byte Ed25519 public key */
                                publicKey: string;
                            }[];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/evidence/{id}/proof": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Inclusion proof of an evidence event against the newest signed tree head */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                logId: string;
                                leafIndex: number;
                                leafHash: string;
                                treeSize: number;
                                rootHash: string;
                                /** @description RFC 9162 §2.1.3 inclusion path, leaf side first */
                                auditPath: string[];
                                treeHead: components["schemas"]["def-9"];
                            };
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/evidence/tree-heads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Signed tree heads of the evidence log, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-9"][];
                            meta: {
                                nextCursor: string | null;
                            };
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/evidence/consistency": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Consistency proof between two tree sizes of the evidence log */
        get: {
            parameters: {
                query: {
                    /** @description The older tree size */
                    first: number;
                    /** @description The newer tree size, at most the newest signed one */
                    second: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                first: number;
                                second: number;
                                /** @description RFC 9162 §2.1.4 consistency proof */
                                proof: string[];
                            };
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/exports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Exports of the organization and environment, newest first */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-10"][];
                            meta: {
                                nextCursor: string | null;
                            };
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Request an export of evidence; it is written in the background */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        channelId?: string | null;
                        from?: string | null;
                        to?: string | null;
                        /** @default jsonl */
                        format?: "jsonl" | "csv";
                        /** @default false */
                        includeProofs?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-10"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/exports/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One export: its status and, once succeeded, the size and SHA-256 of its file */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-10"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/exports/{id}/file": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The export file (application/x-ndjson or text/csv), streamed; Digest and Repr-Digest carry its SHA-256 */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-destinations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhook destinations, newest first (never their secrets) */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-11"][];
                            meta: {
                                nextCursor: string | null;
                            };
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Create a destination; its signing secret is in this response only */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        url: string;
                        description?: string | null;
                        /** @description ["*"] or some of: consent.recorded, export.succeeded, export.failed, channel.created, channel.updated, channel.archived, api_key.created, api_key.revoked */
                        eventTypes?: string[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @example whd_4kF9x2mQ7pL1vN8sR3tY6w */
                                id: string;
                                url: string;
                                description: string | null;
                                /** @description ["*"] or a list of event types */
                                eventTypes: string[];
                                status: "enabled" | "disabled";
                                disabledReason: ("gone" | "failing" | "manual") | null;
                                environment: "test" | "live";
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T10:00:00Z
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T10:00:00Z
                                 */
                                updatedAt: string;
                                /** @description whsec_…; shown once, in this response only */
                                secret: string;
                            };
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-destinations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One webhook destination (never its secret) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-11"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change the url, description or eventTypes of a destination */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        url?: string;
                        description?: string | null;
                        /** @description ["*"] or some of: consent.recorded, export.succeeded, export.failed, channel.created, channel.updated, channel.archived, api_key.created, api_key.revoked */
                        eventTypes?: string[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-11"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/webhook-destinations/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** New signing secret (shown once); the old one also signs for graceSeconds */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @default 86400 */
                        graceSeconds?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @example whd_4kF9x2mQ7pL1vN8sR3tY6w */
                                id: string;
                                url: string;
                                description: string | null;
                                /** @description ["*"] or a list of event types */
                                eventTypes: string[];
                                status: "enabled" | "disabled";
                                disabledReason: ("gone" | "failing" | "manual") | null;
                                environment: "test" | "live";
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T10:00:00Z
                                 */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T10:00:00Z
                                 */
                                updatedAt: string;
                                /** @description whsec_…; shown once, in this response only */
                                secret: string;
                            };
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-destinations/{id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop sending to a destination; its pending deliveries wait until it is enabled */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-11"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-destinations/{id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send to a destination again, resuming the deliveries that waited */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-11"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List deliveries, newest first; filter by destinationId, status, eventType */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                    destinationId?: string;
                    status?: "pending" | "succeeded" | "failed";
                    eventType?: "consent.recorded" | "export.succeeded" | "export.failed" | "channel.created" | "channel.updated" | "channel.archived" | "api_key.created" | "api_key.revoked";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-12"][];
                            meta: {
                                nextCursor: string | null;
                            };
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-deliveries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One delivery with every attempt, oldest first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: {
                                /** @example dlv_4kF9x2mQ7pL1vN8sR3tY6w */
                                id: string;
                                destinationId: string;
                                /** @description The payload id and webhook-id header (msg_…) */
                                eventId: string;
                                eventType: string;
                                status: "pending" | "succeeded" | "failed";
                                attemptCount: number;
                                lastAttemptAt: string | null;
                                nextAttemptAt: string | null;
                                lastResponseStatus: number | null;
                                lastError: string | null;
                                /**
                                 * Format: date-time
                                 * @example 2026-11-21T10:00:00Z
                                 */
                                createdAt: string;
                                attempts: {
                                    /**
                                     * Format: date-time
                                     * @example 2026-11-21T10:00:00Z
                                     */
                                    attemptedAt: string;
                                    responseStatus: number | null;
                                    durationMs: number;
                                    error: string | null;
                                }[];
                            };
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-deliveries/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a failed delivery again (same webhook-id, new retry schedule) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["def-12"];
                            meta: Record<string, never>;
                            error: null;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description RFC 9457 problem details */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            type: string;
                            title: string;
                            status: number;
                            code: string;
                            detail: string;
                            instance: string;
                            requestId: string;
                            errors?: {
                                path: string;
                                message: string;
                            }[];
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** ApiKey */
        "def-0": {
            /** @example key_4kF9x2mQ7pL1vN8sR3tY6w */
            id: string;
            name: string;
            environment: "test" | "live";
            scopes: string[];
            status: "active" | "expired" | "revoked";
            /** @description First 12 characters of the secret, for telling keys apart */
            prefix: string;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            createdAt: string;
            expiresAt: string | null;
            lastUsedAt: string | null;
            revokedAt: string | null;
            memberId: string;
        };
        /** AuditLogEntry */
        "def-1": {
            id: string;
            /** @example api_key.revoked */
            action: string;
            actor: {
                type: "api_key" | "member" | "system";
                id: string | null;
            };
            target: {
                type: string;
                id: string;
            } | null;
            requestId: string | null;
            ipPrefix: string | null;
            environment: "test" | "live";
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            occurredAt: string;
        };
        /** Channel */
        "def-2": {
            /** @example ch_4kF9x2mQ7pL1vN8sR3tY6w */
            id: string;
            name: string;
            description: string | null;
            status: "active" | "archived";
            environment: "test" | "live";
            /** @description Public key of the site endpoints: site_test_… or site_live_… */
            siteKey: string;
            privacyPolicy: {
                url: string | null;
                version: string;
                retentionDays: number;
            };
            /** @description Grows by one whenever what visitors are shown changes */
            configVersion: number;
            defaultLanguage: string;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            updatedAt: string;
            archivedAt: string | null;
        };
        /** Purpose */
        "def-3": {
            /** @example pur_4kF9x2mQ7pL1vN8sR3tY6w */
            id: string;
            channelId: string;
            key: string;
            name: string;
            description: string | null;
            legalBasis: "consent" | "legitimate_interest";
            /** @description Strictly necessary: a visitor cannot deny it */
            required: boolean;
            status: "active" | "archived";
            translations: {
                [key: string]: {
                    name: string;
                    description: string | null;
                };
            };
            consentModeSignals: string[];
            /** @description A Global Privacy Control signal defaults it to denied */
            gpcOptOut: boolean;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            updatedAt: string;
        };
        /** Technology */
        "def-4": {
            /** @example tec_4kF9x2mQ7pL1vN8sR3tY6w */
            id: string;
            channelId: string;
            name: string;
            vendor: string | null;
            purposeKeys: string[];
            cookies: {
                name: string;
                domain: string | null;
                maxAgeSeconds: number | null;
            }[];
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            updatedAt: string;
        };
        /** Origin */
        "def-5": {
            /** @example ori_4kF9x2mQ7pL1vN8sR3tY6w */
            id: string;
            channelId: string;
            /**
             * @example https://shop.example.com
             * @example https://*.example.com
             */
            origin: string;
            status: "active" | "archived";
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            createdAt: string;
        };
        /** ConfigVersion */
        "def-6": {
            version: number;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            createdAt: string;
            config: components["schemas"]["def-7"];
        };
        /** VisitorConfig */
        "def-7": {
            channelId: string;
            siteKey: string;
            configVersion: number;
            defaultLanguage: string;
            languages: string[];
            privacyPolicy: {
                url: string | null;
                version: string;
            };
            purposes: {
                key: string;
                name: string;
                description: string | null;
                legalBasis: "consent" | "legitimate_interest";
                required: boolean;
                translations: {
                    [key: string]: {
                        name: string;
                        description: string | null;
                    };
                };
                consentModeSignals: string[];
                gpcOptOut: boolean;
            }[];
            technologies: {
                name: string;
                vendor: string | null;
                purposeKeys: string[];
                cookies: {
                    name: string;
                    domain: string | null;
                    maxAgeSeconds: number | null;
                }[];
            }[];
        };
        /** EvidenceEvent */
        "def-8": {
            /** @example evt_4kF9x2mQ7pL1vN8sR3tY6w */
            id: string;
            /** @enum {string} */
            type: "consent.recorded";
            channelId: string;
            environment: "test" | "live";
            subject: {
                /** @example psn_****9f3a */
                pseudonym: string;
            };
            decisions: {
                [key: string]: "granted" | "denied";
            };
            configVersion: number;
            policyVersion: string;
            source: "banner" | "preference_center" | "api" | "gpc";
            language: string | null;
            gpc: boolean;
            origin: string | null;
            userAgent: string | null;
            ipPrefix: string | null;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            recordedAt: string;
            receipt: {
                /** @description Ledger leaf hash: hex SHA-256(0x00 ‖ JCS(event, pseudonym unmasked, no receipt)) */
                hash: string;
            };
        };
        /** LedgerTreeHead */
        "def-9": {
            /** @example log_4kF9x2mQ7pL1vN8sR3tY6w */
            logId: string;
            treeSize: number;
            rootHash: string;
            /**
             * Format: date-time
             * @description RFC 3339 UTC, whole seconds; signed as shown
             */
            timestamp: string;
            keyId: string;
            /** @description Base64 Ed25519 signature (see /docs/ledger) */
            signature: string;
        };
        /** Export */
        "def-10": {
            /** @example exp_4kF9x2mQ7pL1vN8sR3tY6w */
            id: string;
            status: "queued" | "running" | "succeeded" | "failed" | "expired";
            format: "jsonl" | "csv";
            filters: {
                channelId: string | null;
                from: string | null;
                to: string | null;
            };
            includeProofs: boolean;
            rowCount: number | null;
            byteSize: number | null;
            sha256: string | null;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            createdAt: string;
            startedAt: string | null;
            completedAt: string | null;
            expiresAt: string | null;
            failureReason: string | null;
        };
        /** WebhookDestination */
        "def-11": {
            /** @example whd_4kF9x2mQ7pL1vN8sR3tY6w */
            id: string;
            url: string;
            description: string | null;
            /** @description ["*"] or a list of event types */
            eventTypes: string[];
            status: "enabled" | "disabled";
            disabledReason: ("gone" | "failing" | "manual") | null;
            environment: "test" | "live";
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            updatedAt: string;
        };
        /** WebhookDelivery */
        "def-12": {
            /** @example dlv_4kF9x2mQ7pL1vN8sR3tY6w */
            id: string;
            destinationId: string;
            /** @description The payload id and webhook-id header (msg_…) */
            eventId: string;
            eventType: string;
            status: "pending" | "succeeded" | "failed";
            attemptCount: number;
            lastAttemptAt: string | null;
            nextAttemptAt: string | null;
            lastResponseStatus: number | null;
            lastError: string | null;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00Z
             */
            createdAt: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
