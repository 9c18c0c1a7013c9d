"""The voice SFU: its own asyncio process (aiortc), reached only over its JSON protocol."""
