//! Native scoring: credit for matched calls, penalties, clamping, threshold and binary mode.
