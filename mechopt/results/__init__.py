"""Results and their words: the one Result type, status words, privacy reports and their files."""
