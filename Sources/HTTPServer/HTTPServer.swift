// The HTTPServer module.
