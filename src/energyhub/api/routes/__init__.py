"""Thin routes: parse, call one service, shape the response."""
