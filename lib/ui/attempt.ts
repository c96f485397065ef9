import { errorMessage } from '../errors';
/** Runs a page action and gives the message to show for its failure ('' when it succeeded). */
export async function attempt(work: () => Promise<void>): Promise<string> {
  try {
    await work();
    return '';
  } catch (e) {
    return errorMessage(e);
  }
}
