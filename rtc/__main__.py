"""`python -m rtc`: run the voice SFU process (started and supervised by `svara serve`)."""

from rtc.server import main

main()
