/**
 * A card's answer on its way to the background (a question, an approval, a sign-in, a server's
 * form): busy while it travels, so a second click is not sent, and the background's refusal
 * ("answered too late", a reply that does not fit) shown on the card rather than lost.
 */
import type { UserReply } from '../../contracts/questions';
import { errorMessage } from '../../errors';

export class Answering {
  busy = $state(false);
  error = $state('');

  constructor(private readonly onanswer: (reply: UserReply) => Promise<void>) {}

  async reply(reply: UserReply): Promise<void> {
    this.error = '';
    this.busy = true;
    try {
      await this.onanswer(reply);
    } catch (e) {
      this.error = errorMessage(e);
    } finally {
      this.busy = false;
    }
  }
}
