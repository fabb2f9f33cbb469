/* staprelay's default PMDA domain: from the end-user range 385-510 of
 * stdpmid, allocated high to low.  Override with -d. */
#define STAPRELAY 490
