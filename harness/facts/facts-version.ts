/**
 * The version every facts file carries in its `facts` field (schema.ts). Its own zod-free
 * module, so the freshness check (source.ts) hashes it without loading the schema.
 */
export const FACTS_VERSION = 1;
