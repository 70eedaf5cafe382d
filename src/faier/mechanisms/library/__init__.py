"""The built-in mechanisms, each written once in faier's front end."""
