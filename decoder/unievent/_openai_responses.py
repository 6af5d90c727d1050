# Protocol handler: not written yet.
