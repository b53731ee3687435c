/**
 * The store notification channel (`store.notify` / `store.listen`) for changes to what an API key's
 * principal is built from: a key revoked or rotated (its expiry moved), an organization's rate-limit
 * override set. Processes that cache principals drop them when it fires, in every replica.
 */
export const PRINCIPAL_CHANGES = 'principal_changes';
