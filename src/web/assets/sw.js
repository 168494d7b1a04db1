// push: handlers below
