package org.apache.flink.table.catalog;
public final class ObjectIdentifier implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  private final String catalogName; private final String databaseName; private final String objectName;
  public ObjectIdentifier(String c, String d, String o) { catalogName = c; databaseName = d; objectName = o; }
}
