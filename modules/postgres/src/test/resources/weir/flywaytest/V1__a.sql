CREATE TABLE cp_a (x int);
