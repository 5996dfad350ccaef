#!/bin/sh
# collect.sh prints the subjects of the commits since the last tag.
git log --format=%s "$(git describe --tags --abbrev=0)"..HEAD
