"""Local twins of AWS APIs that moto does not implement, each on a loopback HTTP server."""
