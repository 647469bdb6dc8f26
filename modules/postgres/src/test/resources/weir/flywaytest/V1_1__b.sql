CREATE TABLE cp_b (x int);
