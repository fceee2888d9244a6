// The price a text request is reserved and charged at once its price modifiers are read (docs/billing.md, "Price
// modifiers"; the rules are lib/money/price-modifiers.ts), and the channels that may serve it. A modifier changes the
// bill only where it reaches the upstream: a body field goes upstream as sent only on a channel that speaks the
// endpoint's dialect (a converted request is rebuilt from the fields the converter knows, lib/providers/anthropic/
// convert), a beta only on an anthropic channel that lets it through (lib/dialects/messages/betas.ts). A request
// whose modifiers change the price is served only by channels that pass all of them, so what is charged is what the
// upstream that served it bills.
import { GatewayError } from "@/lib/platform/errors";
import { channelsFor, upstreamModel, type Channel } from "@/lib/channels";
import { splitLongContext } from "@/lib/catalog/models";
import { providerOf } from "@/lib/providers";
import { allowedBetas, splitBetas } from "@/lib/dialects/messages/betas";
import type { Price } from "@/lib/money/prices";
import type { HeldFor } from "@/lib/money/reserve";
import { BETA_PREFIX, modifierFieldNames, multipliedPrice, priceModifiersOf, type AppliedModifier } from "@/lib/money/price-modifiers";

export type ModifiedPrice = {
  /** What the reservation is computed at: the modified rates, never below the standard ones (an upper bound). */
  reservePrice: Price;
  /** What the settlement charges: the model's rates times the modifiers' multiplier. */
  chargePrice: Price;
  /** For the reservation: the modifiers charged and their multipliers (the ledger row's detail), and the channels to
   * try when only some of the model's channels pass the modifiers on. */
  held: HeldFor;
};

/**
 * Reads the request's price modifiers: a 400 for one that could cost more and has no price; otherwise the prices to
 * reserve and charge at and the channels that pass the modifiers on.
 */
export async function modifiedPrice(
  kind: "chat" | "messages",
  body: Record<string, unknown>,
  betaHeader: string | null,
  price: Price,
): Promise<ModifiedPrice> {
  const modifiers = priceModifiersOf(body, splitBetas(betaHeader), price, await modifierFieldNames());
  const standard = { reservePrice: price, chargePrice: price, held: {} };
  if (modifiers.multiplier === 1) return standard;
  const all = await channelsFor(price.model);
  const passing = all.filter((channel) => modifiers.applied.every((modifier) => passes(channel, price.model, kind, modifier)));
  if (!passing.length) {
    // No channel sends them upstream (every channel converts the request, or drops the beta): the upstream bills the
    // standard price, as for any field a conversion leaves out.
    if (all.every((channel) => !modifiers.applied.some((modifier) => passes(channel, price.model, kind, modifier)))) return standard;
    const names = modifiers.applied.map((modifier) => modifier.key).join(", ");
    throw new GatewayError(
      "invalid_request",
      `No channel serving '${price.model}' passes ${names} upstream together; send them in separate requests or leave one out`,
      { param: modifiers.applied[0]!.name.startsWith(BETA_PREFIX) ? "anthropic-beta" : modifiers.applied[0]!.name },
    );
  }
  return {
    reservePrice: multipliedPrice(price, Math.max(1, modifiers.multiplier)),
    chargePrice: multipliedPrice(price, modifiers.multiplier),
    held: {
      detail: { priceModifiers: Object.fromEntries(modifiers.applied.map((modifier) => [modifier.key, modifier.multiplier])) },
      channels: passing.length === all.length ? undefined : passing,
    },
  };
}

function passes(channel: Channel, model: string, kind: "chat" | "messages", modifier: AppliedModifier): boolean {
  const { base } = splitLongContext(model);
  const native = providerOf(channel.type).nativeText(upstreamModel(channel, model, base));
  if (!modifier.name.startsWith(BETA_PREFIX)) return native === kind;
  return native === "messages" && allowedBetas(modifier.name.slice(BETA_PREFIX.length), channel.settings).allowed.length === 1;
}
