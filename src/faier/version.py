"""faier's version, in one place (the package metadata and the JSON envelope read it)."""

VERSION = "0.1.0"
