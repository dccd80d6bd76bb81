import { redactInput, redactOutput } from '../src/redaction/redact';
import { median } from './lib/stats';

/**
 * `npm run redaction:speed`: the cost of redaction on the hot path (every tool-call row).
 * Times redactInput on typical tool inputs and redactOutput on a typical order result,
 * REDACTION_SPEED_ITERATIONS times each (default 100 000), five rounds, and prints the
 * median CPU microseconds per call.
 */
const inputs: unknown[] = [
  { orderId: '450789469', fields: ['id', 'name', 'total_price', 'fulfillments'] },
  {
    orderId: 'gid://shopify/Order/5445219221558',
    amount: '19.99',
    currency: 'USD',
    reason: 'customer changed their mind, refund to the original card',
    lineItems: [
      { lineItemId: 866550311766439, quantity: 1 },
      { lineItemId: 141249953214522, quantity: 2 },
    ],
    notify: true,
  },
  { query: 'status:open created_at:>2026-11-01', first: 50, after: 'eyJsYXN0X2lkIjo0NTA3ODk0Njl9' },
  { AmazonOrderId: '902-3159896-1390916', MarketplaceId: 'ATVPDKIKX0DER', note: 'Tracking 1Z999AA10123456784 shipped 2026-11-29T10:00:00Z' },
];

const output = {
  id: 450789469,
  name: '#1001',
  email: 'bob@example.com',
  created_at: '2026-11-29T10:00:00-05:00',
  total_price: '409.94',
  currency: 'USD',
  financial_status: 'paid',
  customer: {
    id: 207119551,
    first_name: 'Bob',
    last_name: 'Norman',
    phone: '+16135550134',
    default_address: { address1: 'Chestnut Street 92', city: 'Louisville', zip: '40202', country_code: 'US' },
  },
  line_items: [
    { id: 866550311766439, sku: 'IPOD2008GREEN', title: 'IPod Nano - 8gb', quantity: 1, price: '199.00' },
    { id: 141249953214522, sku: 'IPOD2008RED', title: 'IPod Nano - 8gb', quantity: 1, price: '199.00' },
  ],
  fulfillments: [{ tracking_number: '1Z999AA10123456784', tracking_company: 'UPS', status: 'success' }],
  note: 'Leave at 12 Oak Lane, Louisville, KY 40202 or call (502) 555-0147',
};

/** Support notes as people write them, each with a label a few words before a number. */
const notes: unknown[] = [
  { note: 'Called the customer about order #1001. SSN on file: 536 22 1234. Refund approved for 19.99.' },
  { body: 'Hi team, the passport number we have for her is X1234567 - please double-check before shipping. Thanks, Sam' },
  { message: '[10:42] agent: tax id for the account is 12-3456789, card on file ending in 4242' },
  { comment: 'passport photo on file for order 12345678, 2 guests since 2026-11-29' },
];

/** CPU time (user + system) per call: on a shared machine, wall time mostly measures waiting. */
function time(label: string, iterations: number, fn: (i: number) => unknown): void {
  const rounds: number[] = [];
  for (let i = 0; i < iterations / 10; i++) fn(i); // warm-up
  for (let round = 0; round < 5; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) fn(i);
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / iterations);
  }
  const spread = `${Math.min(...rounds).toFixed(2)}–${Math.max(...rounds).toFixed(2)}`;
  console.log(`${label.padEnd(40)} ${median(rounds).toFixed(2).padStart(7)} µs CPU/call (rounds ${spread})`);
}

const iterations = Number(process.env.REDACTION_SPEED_ITERATIONS ?? 100_000);
console.log(`node ${process.version}, ${iterations} calls per round, median of 5 rounds`);
time('redactInput, typical tool inputs', iterations, (i) => redactInput(inputs[i % inputs.length]));
time('redactOutput, order result (2 lines)', iterations, () => redactOutput(output));
time('redactOutput, support notes in prose', iterations, (i) => redactOutput(notes[i % notes.length]));
