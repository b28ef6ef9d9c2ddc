#!/usr/bin/env python3
"""A bot in Python feeding Trading Bot API with event lines: one JSON object per line, one line per writer call.

It appends to a file that `npm run ingest -- --follow FILE` reads (or prints to standard output for
`npm run ingest -- -`). Amounts are strings, exactly as the bot knows them; times are UTC, RFC 3339.
The format: docs/event-lines.md.

    python3 examples/python/bot.py bot-events.jsonl            # then: npm run ingest -- --follow bot-events.jsonl
    python3 examples/python/bot.py - | npm run ingest -- -
"""
import json
import sys
import time
from datetime import datetime, timezone


def now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def main(target, account="example-py"):
    out = sys.stdout if target == "-" else open(target, "a", encoding="utf-8")

    def emit(event_type, **fields):
        # One line, written whole and flushed, so the ingester never reads half an event.
        out.write(json.dumps({"type": event_type, "account": account, **fields}) + "\n")
        out.flush()

    # --- events
    emit("account", name="Example Python bot", currency="USDT", broker="Binance", environment="paper")
    trade_id = f"py-{int(time.time() * 1000)}"
    emit("open", id=trade_id, instrument="BTC_USDT", side="buy", units="0.015",
         openPrice="61250.5", openTime=now(), stopLoss="60000")
    emit("marks", id=trade_id, unrealizedPL="3.75")
    emit("close", id=trade_id, closePrice="61500.5", closeTime=now(), realizedPL="3.75")
    emit("balance", balance="1003.75", unrealizedPL="0", nav="1003.75", marginUsed="0",
         marginAvailable="1003.75", time=now())
    emit("heartbeat", state="running", strategy="example")
    # --- end
    if out is not sys.stdout:
        out.close()
    # This example stops here, so its bot turns stale: say how to take its account out of the fleet.
    print(f"{account}: written. Done trying it? npm run accounts -- retire {account} takes it out of the fleet "
          f'(or a line {{"type": "retire", "account": "{account}"}}); its history stays.', file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: bot.py FILE|-")
    main(sys.argv[1])
