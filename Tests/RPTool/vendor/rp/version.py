VERSION = '1.1.x-dev'
