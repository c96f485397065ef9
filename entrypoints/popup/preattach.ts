import { preattachLatest } from '../../lib/ui/extension-client';

// Imported first by main.ts, so this runs before Svelte and the chat components evaluate.
preattachLatest();
