export { JsonlStore, type JsonlStoreOptions, jsonlStore } from './jsonl-store.ts';
