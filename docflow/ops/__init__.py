"""The operators' view: the dashboard's custom widgets and charts (the local stack serves the same
page). May import the read model; nothing above it."""
