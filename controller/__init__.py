"""The smartboard daemon: the session, the rules, the lights, the journal and the command line."""
