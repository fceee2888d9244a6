// A gate for quota races: the upstream holds every answer until each of the racing requests has either been
// refused by the gateway or has reached the upstream. Settling a served request gives back the unused part of its
// reservation, so on a slow machine a request whose turn came only after that would rightly be served; with the
// gate the race is between reservations, as the tests mean it, and not against a fixed upstream delay.

export type RaceGate = {
  /** In the upstream's handler: counts the request as arrived and resolves when the gate opens. */
  arrive(): Promise<void>;
  /** For each answer the client got that is not a success. */
  refused(): void;
};

/**
 * `total` is the number of racing requests. The fallback timer only lets a broken gateway's test end with its
 * assertion instead of hanging.
 */
export function raceGate(total: number, fallbackMs = 30_000): RaceGate {
  let arrived = 0;
  let refused = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
    setTimeout(resolve, fallbackMs).unref();
  });
  const check = () => {
    if (arrived + refused >= total) open();
  };
  return {
    arrive() {
      arrived++;
      check();
      return opened;
    },
    refused() {
      refused++;
      check();
    },
  };
}
