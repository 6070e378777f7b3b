#!/bin/sh
# Install the Debian 12 packages dtsim needs to build, test and run.
# Runs apt-get directly as root, through sudo otherwise.
set -e
packages="build-essential autoconf automake pkg-config libsimgrid-dev simgrid \
libglib2.0-dev libxml2-dev check libfann-dev python3 gnuplot-nox valgrind time"
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $packages >/dev/null
echo "install-deps: installed $packages"
