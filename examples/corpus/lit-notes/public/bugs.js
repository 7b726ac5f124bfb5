window.__BUGS__ = [];
