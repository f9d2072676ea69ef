import type { EventPublisher } from '../services.js';
import { radioTopic, radiosUserTopic } from '../live/topics.js';
import type { RadioWrite } from './radioStore.js';

/**
 * Tells browsers watching the radio, and those watching all of the owner's radios, about a new
 * radio state (fire-and-forget: the publisher never throws and never waits).
 */
export function publishRadioUpdate(events: EventPublisher, userId: number, write: RadioWrite): void {
  const radioStatus = { ...write.status, timestamp: write.updatedMs };
  events.publish(radioTopic(write.status.id), { type: 'radio_updated', radio_status: radioStatus });
  events.publish(radiosUserTopic(userId), { type: 'radio_updated', radio_id: write.status.id, radio_status: radioStatus });
}
