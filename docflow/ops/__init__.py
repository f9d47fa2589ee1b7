"""The operators' view: the dashboard's custom widgets and the local dashboard page."""
