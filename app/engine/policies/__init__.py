"""The engine's players: policies that play a seat through the `Hand` API only.

`base` (what a policy is), `simple` (the random bot and the classic bot), `odds` (the odds
bot, every game), `roster` (the policies by name, for `svara simulate --bot`, the arena and
the live tables). The live tables' seat fillers that run these policies are app/bots/.
"""
